// The sync project needs a real PostgreSQL: tools/test-postgres.sh starts a throwaway cluster
// and sets SYNC_TEST_DATABASE_URL (npm test runs the project through it).
export default function setup(): void {
  if (!process.env.SYNC_TEST_DATABASE_URL) {
    throw new Error('the sync tests need PostgreSQL: run them as `sh tools/test-postgres.sh npx vitest run --project sync`');
  }
}
