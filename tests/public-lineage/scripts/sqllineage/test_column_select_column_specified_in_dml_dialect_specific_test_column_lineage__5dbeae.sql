CREATE TABLE target_tbl(
   col_a string,
   col_b string)
AS
SELECT col1 AS col_a,
       col2 AS col_b
FROM source_tbl
