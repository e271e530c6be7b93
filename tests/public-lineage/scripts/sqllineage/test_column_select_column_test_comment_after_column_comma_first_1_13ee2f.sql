INSERT INTO tab1
SELECT a.col1
       --, a.col2
       , a.col3
FROM tab2 a
