INSERT INTO tab1
SELECT cast(cast(cast(cast(cast(col1 AS varchar(255)) AS varchar(255)) AS varchar(255)) AS varchar(255)) AS varchar(255)) AS col1
FROM tab2
