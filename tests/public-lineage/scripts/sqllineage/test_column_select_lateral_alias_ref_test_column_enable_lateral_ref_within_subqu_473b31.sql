
    insert into temp.customer_identifier
    select
        sq.customer_code
    from
        (
            select
                p.businessentityid || p.lastname   as partial_code,
                partial_code       || c.customerid as customer_code
            from
                person.person as p
                join
                    sales.customer as c
                on
                    p.businessentityid = c.personid
        ) as sq
    
