insert into temp.order_line_extract
select orderqty, unitprice as unit_price, subtotal, territory, productid as product_id, color
from (select salesorderid, orderqty, unitprice, product from sales.salesorderdetail) t1
join (select salesorderid, subtotal, territoryid as territory, j from sales.salesorderheader) t2 on t1.salesorderid = t2.salesorderid
left join (select productid, color, weight from production.product) t3 on t1.product = t3.productid
