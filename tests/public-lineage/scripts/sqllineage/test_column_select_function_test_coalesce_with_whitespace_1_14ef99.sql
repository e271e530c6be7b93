INSERT INTO tab1
SELECT coalesce (col1, col2) as col3
FROM tab2
