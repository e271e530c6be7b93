INSERT INTO tab1
SELECT (col1 + col2)
FROM tab2
