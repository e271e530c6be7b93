CREATE PROCEDURE schema_a.sproc_test
  @param_a BIGINT, @param_b DATE
AS
BEGIN
  SET NOCOUNT ON;
  BEGIN TRY
    DECLARE @var_a BIGINT = 0;
    IF @param_a IS NULL
      SET @param_a = 0;
    ELSE IF @param_a < 0
      SET @param_a = ABS(@param_a);
    SET
      @param_b = COALESCE(
        @param_b,
        CAST(SYSDATETIMEOFFSET() AT TIME ZONE 'China Standard Time' AS DATE)
      );
    WHILE @var_a >= @param_a
      BEGIN
        SET @var_a = @var_a + 1;
        INSERT INTO schema_a.table_c
        SELECT
          a.col1 AS id_pk,
          a.col2 AS updated,
          b.col2 AS pet
        FROM schema_a.table_a AS a
        LEFT JOIN schema_a.table_b AS b
          ON a.col1 = b.col1
        WHERE DATE(a.col2) >= @param_b;
        SELECT @@ROWCOUNT AS aff_rows;
      END
  END TRY
  BEGIN CATCH
    SELECT ERROR_MESSAGE() AS error_info;
    THROW;
  END CATCH
END;
GO
