CREATE VIEW my_view (col1,col2) AS (SELECT col1,col2 FROM tbl)
