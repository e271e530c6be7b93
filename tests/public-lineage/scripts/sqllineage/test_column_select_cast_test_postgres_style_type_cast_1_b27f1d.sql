INSERT INTO tab1
SELECT col1::timestamp
FROM tab2
