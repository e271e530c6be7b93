CREATE TABLE tab2 AS
SELECT coalesce(col1, 0)             AS col1,
       if(col1 IS NOT NULL, 1, NULL) AS col2
FROM tab1
