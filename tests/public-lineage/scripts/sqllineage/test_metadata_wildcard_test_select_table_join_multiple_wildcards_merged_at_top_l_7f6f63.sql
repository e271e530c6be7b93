insert into temp.sales_ship_address_snapshot
    select *
    from (
        select x.*, z.* from marts.fct_sales x
        join marts.dim_address z on x.ship_address_key = z.address_key
    ) t
    
