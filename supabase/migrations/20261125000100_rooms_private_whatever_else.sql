-- Manette's rooms stay private whatever else a project adds to realtime.messages.
--
-- Policies are permissive by default, and Postgres OR-s permissive policies: a broad
-- policy a studio writes for its own channels (Supabase's docs show `using (true)`
-- examples) would open every match room and player channel to any token. Restrictive
-- policies are AND-ed with everything else: on Manette's topics (the whole `manette_`
-- namespace), these let through only what Manette's own policies allow
-- (20261123000100_realtime_rooms: the role `authenticated`, whose player token the helpers
-- accept), and they change nothing on any other topic.
-- The server's sends (manette.realtime_send, as the migration role) and Realtime's own
-- probes (as its superuser) bypass row-level security and are not affected.

-- == Policies ==================================================================
create policy "Manette topics are read only by those Manette lets read" on realtime.messages
  as restrictive for select to public
  using (left(realtime.messages.topic, 8) <> 'manette_'
         or (current_user = 'authenticated'
             and realtime.messages.extension in ('broadcast', 'presence')
             and realtime.messages.topic = (select realtime.topic())
             and (select manette_realtime.can_read((select realtime.topic())))));

create policy "Manette topics are written only by those Manette lets write" on realtime.messages
  as restrictive for insert to public
  with check (left(realtime.messages.topic, 8) <> 'manette_'
              or (current_user = 'authenticated'
                  and realtime.messages.extension in ('broadcast', 'presence')
                  and realtime.messages.topic = (select realtime.topic())
                  and (select manette_realtime.can_write((select realtime.topic())))));

-- Realtime never updates nor deletes a message through a client's role: nobody does on
-- Manette's topics.
create policy "Manette topics are never updated by clients" on realtime.messages
  as restrictive for update to public
  using (left(realtime.messages.topic, 8) <> 'manette_')
  with check (left(realtime.messages.topic, 8) <> 'manette_');

create policy "Manette topics are never deleted by clients" on realtime.messages
  as restrictive for delete to public
  using (left(realtime.messages.topic, 8) <> 'manette_');

-- Every role that reads or writes realtime.messages under row-level security evaluates
-- these (anon, a studio's own roles), and Postgres checks the right to call a function
-- before evaluating anything: every role may call the two helpers, which only answer
-- whether the request's own verified Manette claims may read or write a topic.
grant usage on schema manette_realtime to public;
grant execute on function manette_realtime.can_read(text), manette_realtime.can_write(text) to public;
