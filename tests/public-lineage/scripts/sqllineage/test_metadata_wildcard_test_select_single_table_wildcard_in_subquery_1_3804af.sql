insert into temp.creditcard_snapshot
    select creditcard_key, cardtype
    from (
        select *
        from (
            select creditcardid, cardtype, creditcard_key from marts.dim_credit_card
        ) t1
    ) t2
    
