INSERT INTO tab1
SELECT cast(col1 as varchar(255)) AS col1
FROM tab2
