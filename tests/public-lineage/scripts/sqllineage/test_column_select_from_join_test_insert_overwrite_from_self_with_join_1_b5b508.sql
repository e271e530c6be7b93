INSERT INTO tab1
    SELECT max(t1.price) + min(t2.price) AS price FROM tab2 t2
                  INNER JOIN tab1 t1 ON t1.id = t2.id
