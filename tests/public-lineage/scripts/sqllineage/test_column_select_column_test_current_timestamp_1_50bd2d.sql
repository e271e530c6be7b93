INSERT INTO tab1
SELECT current_timestamp as col1,
       col2,
       col3
FROM tab2
