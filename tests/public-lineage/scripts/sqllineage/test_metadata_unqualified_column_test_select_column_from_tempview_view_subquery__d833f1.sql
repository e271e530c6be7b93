
create or replace view test_view as
select salesorderid, unitprice, productid from sales.salesorderdetail
;

insert into temp.order_line_extract
select test_view.salesorderid, unitprice as unit_price, test_view.productid, shipdate as ship_date, shipmethodid, color, product_name
from test_view
left join sales.salesorderheader t2 on test_view.salesorderid = t2.salesorderid
left join (select productid, color, name as product_name from production.product) t3 on test_view.productid = t3.productid
