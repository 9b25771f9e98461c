/** Says once, at the top of the run, which databases the storage-backed suites run against. */
export default function announceDatabases(): void {
  const postgres = process.env.QUIRE_TEST_POSTGRES_URL;
  process.stdout.write(
    postgres
      ? `Storage suites run on SQLite and on PostgreSQL (${postgres.replace(/\/\/[^@/]*@/, '//…@')}).\n`
      : 'Storage suites run on SQLite only; set QUIRE_TEST_POSTGRES_URL=postgres://… to run them on PostgreSQL too.\n',
  );
}
