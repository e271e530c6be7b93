
    update
        public.tgt_tbl1 as t
    set
        name  = s.name,
        email = s.address
    from
        public.src_tbl1 as s
    where
        s.id = t.id
    
