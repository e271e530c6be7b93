
    with
        s as (
            select name, address from public.src_tbl1
        )
    update
        public.tgt_tbl1 as t
    set
        name  = s.name,
        email = s.address
    from
        s
    where
        s.id = t.id
    
