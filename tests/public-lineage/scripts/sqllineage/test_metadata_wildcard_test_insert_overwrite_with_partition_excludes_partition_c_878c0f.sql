INSERT OVERWRITE TABLE temp.credit_card_daily PARTITION (dt=20251217)
SELECT creditcard_key, creditcardid, cardtype
FROM temp.dim_credit_card
