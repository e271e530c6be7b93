INSERT INTO tab1
SELECT cast(case when col1 > 0 then col2 else col3 end as string) AS col1
FROM tab2
