-- Sample table with the schema of YugabyteDB's published migration benchmark.
CREATE TABLE accounts (
  block bigint NOT NULL,
  address text NOT NULL,
  dc_balance bigint NOT NULL DEFAULT 0,
  dc_nonce bigint NOT NULL DEFAULT 0,
  security_balance bigint NOT NULL DEFAULT 0,
  security_nonce bigint NOT NULL DEFAULT 0,
  balance bigint NOT NULL DEFAULT 0,
  nonce bigint NOT NULL DEFAULT 0,
  staked_balance bigint,
  PRIMARY KEY (block, address)
);
INSERT INTO accounts
SELECT g / 100, md5(g::text) || substr(md5((g * 7)::text), 1, 8), g % 1000, g % 10, g % 777, g % 3, g * 13, g % 97, g % 5
FROM generate_series(1, 100000) g;
