insert into temp.creditcard_snapshot
    select *
    from marts.dim_credit_card
    
