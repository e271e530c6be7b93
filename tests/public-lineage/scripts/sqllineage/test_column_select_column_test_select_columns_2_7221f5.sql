INSERT INTO tab1
SELECT max(col1),
max(col2)
FROM tab2
