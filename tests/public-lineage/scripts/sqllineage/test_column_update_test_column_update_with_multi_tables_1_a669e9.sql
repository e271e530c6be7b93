
    update
        public.tgt_tbl1 as t
    set
        name  = s1.name,
        email = s2.email
    from
        public.src_tbl1 as s1
        join
            public.src_tbl2 as s2
        on
            s1.id = s2.id
    where
        s1.id = t.id
    
