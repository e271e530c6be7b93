insert into temp.creditcard_snapshot
    select creditcardid, cardtype
    from (
        select *, row_number() over (partition by creditcard_key) as rn
        from marts.dim_credit_card
    ) t1
    where rn = 1
    
