INSERT INTO tab1
SELECT max(col1) AS col2,
       count(*)  AS cnt
FROM tab2
