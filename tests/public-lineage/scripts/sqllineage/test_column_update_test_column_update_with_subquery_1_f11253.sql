
    update
        public.tgt_tbl1 as t
    set
        name  = s.name,
        email = s.email
    from
        (
            select
                s1.id,
                s1.name,
                s2.email
            from
                public.src_tbl1 as s1
                join
                    public.src_tbl2 as s2
                on
                    s1.id = s2.id
        ) as s
    where
        s.id = t.id
    
