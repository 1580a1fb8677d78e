import { sql, type Kysely } from 'kysely';

// The erasure of a wholesale applicant emptied their applications (the email the erased placeholder,
// the form `{}`) and left a pending one PENDING: `wholesale list` kept showing it, with nothing to
// decide on, and it was refused only when an operator tried to decide it. The erasure now closes it as
// ERASED (modules/accounts, wholesale.repository.ts); this closes those it left. Their decided_at is
// when the erasure ran: the erased user's updated_at, which it wrote, found by the same placeholder.
// The status column is a plain varchar(16) on both engines, so the new value needs no change of it.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    update wholesale_request
    set status = 'ERASED',
        decided_at = (select app_user.updated_at from app_user where app_user.email = wholesale_request.email)
    where status = 'PENDING' and email like 'erased-%@erased.invalid'`.execute(db);
}

/** As the erasure left them before: pending, undecided. */
export async function down(db: Kysely<any>): Promise<void> {
  await sql`update wholesale_request set status = 'PENDING', decided_at = null where status = 'ERASED'`.execute(db);
}
