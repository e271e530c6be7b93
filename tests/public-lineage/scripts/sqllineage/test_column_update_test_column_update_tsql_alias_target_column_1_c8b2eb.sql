UPDATE t SET t.c = s.c FROM tab1 t JOIN tab2 s ON t.id = s.id
