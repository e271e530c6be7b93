insert into temp.order_line_extract
select unitprice as unit_price, orderqty, weight, name as product_name
from sales.salesorderdetail t1
left join (select name, color, weight from production.product) t3
on t1.productid = t3.productid
