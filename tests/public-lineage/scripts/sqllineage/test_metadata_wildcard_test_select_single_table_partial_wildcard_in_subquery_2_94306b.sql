insert into temp.creditcard_snapshot
    select creditcardid, cardtype
    from (
        select *, row_number() over (partition by creditcardid) as rn
        from marts.dim_credit_card t
    ) t1
    where rn = 1
    
