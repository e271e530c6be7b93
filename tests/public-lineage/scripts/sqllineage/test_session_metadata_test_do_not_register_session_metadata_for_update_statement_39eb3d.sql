UPDATE sales.salesorderheader SET status = 5 WHERE salesorderid = 1001;

CREATE TABLE temp.order_line_extract AS
SELECT salesorderdetailid, productid, unitprice, orderqty
FROM sales.salesorderdetail sod
INNER JOIN sales.salesorderheader soh ON sod.salesorderid = soh.salesorderid
