INSERT INTO tgt_tbl(random1, random2) SELECT col1,col2 FROM src_tbl_new
