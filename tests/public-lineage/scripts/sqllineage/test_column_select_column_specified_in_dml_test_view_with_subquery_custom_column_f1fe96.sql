CREATE VIEW my_view (random1,random2) AS (((SELECT col1,col2 FROM tbl)))
