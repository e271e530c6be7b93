
    insert into temp.person_composite_key
    select
        firstname || middlename || lastname || businessentityid as businessentityid,
        businessentityid                                        as businessentityid_original
    from
        person.person
    
