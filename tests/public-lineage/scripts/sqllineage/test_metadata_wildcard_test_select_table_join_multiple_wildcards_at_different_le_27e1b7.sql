insert into temp.sales_ship_address_snapshot
    select x.*, y.addressid, y.address_key
    from (select * from marts.fct_sales where revenue >= 100) x
    join (select *
          from (
              select *, row_number() over (partition by address_key) as rn from marts.dim_address
          ) t1
          where rn = 1
    ) y
    on x.ship_address_key = y.address_key
    
