INSERT INTO tab1
SELECT max(col1),
       count(*)
FROM tab2
