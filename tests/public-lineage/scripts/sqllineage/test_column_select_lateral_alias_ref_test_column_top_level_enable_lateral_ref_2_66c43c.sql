
    insert into temp.person_contact
    (
        firstname,
        middlename
    )
    select
        p.firstname,
        p.firstname || '-' || p.middlename as middlename
    from
        person.person as p
    
