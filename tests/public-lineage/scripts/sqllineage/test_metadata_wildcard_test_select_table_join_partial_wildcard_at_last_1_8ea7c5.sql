insert into temp.sales_creditcard_snapshot
    select sales_key, creditcard_key, cardtype
    from (
        select x.sales_key, y.* from marts.fct_sales x
        join marts.dim_credit_card y on x.creditcard_key = y.creditcard_key
    ) t
    
