CREATE PROCEDURE schema_a.sp_test(
  param_a NUMBER, param_b DATE
) AS
DECLARE var_a NUMBER := 0;
BEGIN
  IF param_a IS NULL THEN
    param_a := 0;
  ELSIF param_a < 0 THEN
    param_a := ABS(param_a);
  END IF;
  param_b := COALESCE(param_b, CURRENT_DATE('Asia/Shanghai'));
  LOOP
    var_a := var_a + 1;
    INSERT INTO schema_a.table_c
    SELECT
      a.col1 AS id_pk,
      a.col2 AS updated,
      b.col2 AS pet
    FROM schema_a.table_a AS a
    LEFT JOIN schema_a.table_b AS b
      ON a.col1 = b.col1
    WHERE DATE(a.col2) >= param_b;
    SELECT SQL%ROWCOUNT AS aff_rows;
    EXIT WHEN var_a >= param_a;
  END LOOP;
EXCEPTION WHEN ERROR THEN
  SELECT SQLERRM AS error_info;
  RAISE;
END;
/
