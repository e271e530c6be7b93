create table temp.customer_latest_ship_address_snapshot as
    select customer_key, ship_address_key
    from (
        select *, row_number() over (partition by customer_key) as rn
        from marts.fct_sales t
    ) t1
    where rn = 1
    ;

    create table temp.address_snapshot as
    select *
    from marts.dim_address
    ;

    insert into temp.customer_address_snapshot
    select t1.*, t2.fullname, t3.*
    from temp.customer_latest_ship_address_snapshot t1
    join (select * from marts.dim_customer where fullname is not null) t2 on t1.customer_key = t2.customer_key
    left join temp.address_snapshot t3 on t1.ship_address_key = t3.address_key
    
