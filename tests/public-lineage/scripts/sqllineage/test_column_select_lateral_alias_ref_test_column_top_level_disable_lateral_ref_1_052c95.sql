
    insert into temp.person_contact
    select
        firstname             as user_name,
        user_name || lastname as id
    from
        person.person
    
