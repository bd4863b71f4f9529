-- Sample table with the schema of YugabyteDB's published migration benchmark.
CREATE TABLE accounts (
  block bigint NOT NULL,
  address varchar(64) NOT NULL,
  dc_balance bigint NOT NULL DEFAULT 0,
  dc_nonce bigint NOT NULL DEFAULT 0,
  security_balance bigint NOT NULL DEFAULT 0,
  security_nonce bigint NOT NULL DEFAULT 0,
  balance bigint NOT NULL DEFAULT 0,
  nonce bigint NOT NULL DEFAULT 0,
  staked_balance bigint,
  PRIMARY KEY (block, address)
);
SET SESSION cte_max_recursion_depth = 200000;
INSERT INTO accounts (block, address, dc_balance, dc_nonce, security_balance, security_nonce, balance, nonce, staked_balance)
WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < 100000)
SELECT n DIV 100, CONCAT(MD5(n), SUBSTR(MD5(n * 7), 1, 8)), n % 1000, n % 10, n % 777, n % 3, n * 13, n % 97, n % 5 FROM g;
-- Debezium's MySQL connector needs these on the connecting user.
GRANT SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'sluice'@'%';
-- The copier holds LOCK TABLES ... READ for a moment per chunk to read an exact binlog position.
GRANT LOCK TABLES ON app.* TO 'sluice'@'%';
