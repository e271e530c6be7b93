insert into temp.order_line_extract
select t1.salesorderid, customerid as customer_id, territoryid, orderqty, unitprice as unit_price
from sales.salesorderdetail t1
left join sales.salesorderheader t2 on t1.salesorderid = t2.salesorderid
