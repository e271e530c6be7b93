insert into temp.order_line_extract
select customerid, territoryid as territory, orderqty, detail_id
from (select orderqty, unitprice, salesorderdetailid as detail_id from sales.salesorderdetail) t1
left join (select customerid, territoryid, subtotal from sales.salesorderheader) t2
on t1.salesorderid = t2.salesorderid
