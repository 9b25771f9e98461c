-- Addresses and CIDR ranges an admin API key may be used from; null allows every address.
alter table api_keys add column allowed_ips text;
