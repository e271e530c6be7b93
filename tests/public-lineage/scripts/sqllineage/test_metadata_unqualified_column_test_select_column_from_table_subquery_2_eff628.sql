insert into temp.order_line_extract
select orderqty, unit_price, territoryid as territory, subtotal, color, product_name
from (select salesorderdetailid, orderqty, unitprice as unit_price, specialofferid from sales.salesorderdetail) t1
left join sales.salesorderheader t2 on t1.salesorderid = t2.salesorderid
left join (select productid, color, name as product_name from production.product) t3 on t1.productid = t3.productid
