WITH t2 AS (SELECT *
            FROM tab1),
     t3 AS (SELECT f1,
                   *
            FROM t2)
INSERT INTO tab3
SELECT *
FROM t3;
