INSERT INTO foo
SELECT (SELECT col1 + col2 AS result) AS sum_result
FROM bar
