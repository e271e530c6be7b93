INSERT INTO tab3
SELECT t2.col1
FROM (
        (tab2 AS t2
            JOIN tab1 AS t1 
                ON t2.id = t1.t2_id)
)
