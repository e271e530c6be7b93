insert into temp.order_line_extract
select customerid, territoryid as territory, orderqty, unitprice as unit_price, weight, color, name as product_name
from sales.salesorderdetail t1
left join sales.salesorderheader t2 on t1.salesorderid = t2.salesorderid
left join production.product t3 on t2.salesorderid = t3.productid
