CREATE VIEW foo AS
SELECT Name, DOB (TITLE 'Birthdate')
FROM Employee;
