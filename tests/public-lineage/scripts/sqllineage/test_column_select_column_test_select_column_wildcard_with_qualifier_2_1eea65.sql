INSERT INTO tab1
SELECT a.*
FROM tab2 a
         INNER JOIN tab3 b
                    ON a.id = b.id
