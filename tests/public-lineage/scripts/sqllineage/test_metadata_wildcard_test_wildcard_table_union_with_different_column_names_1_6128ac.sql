insert into temp.creditcard_snapshot
SELECT * FROM temp.dim_credit_card1
UNION
SELECT * FROM temp.dim_credit_card2
