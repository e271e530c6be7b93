MERGE INTO target USING src ON target.id = src.id
WHEN MATCHED THEN UPDATE SET target.v = src.v
