
    insert into temp.person_full_name
    select
        sq.name
    from
        (
            select
                firstname  || middlename as prefixname,
                prefixname || lastname   as name
            from
                person.person
        ) as sq
    
