
    insert into temp.person_identifier
    (
        businessentityid,
        businessentityid_original
    )
    select
        'prefix_' || businessentityid as businessentityid,
        businessentityid              as businessentityid_original
    from
        person.person
    
