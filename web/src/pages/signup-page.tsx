import { Anchor } from '@mantine/core';
import { Link } from 'react-router-dom';
import { AuthLayout } from './auth-layout';
import { HouseholdForm } from './household-form';

export function SignupPage() {
  return (
    <AuthLayout
      title="Create a household"
      subtitle="Start a new Hearth household. You will be its owner."
      footer={
        <>
          Already have an account?{' '}
          <Anchor component={Link} to="/login">
            Sign in
          </Anchor>
        </>
      }
    >
      <HouseholdForm endpoint="/api/signup" submitLabel="Create household" />
    </AuthLayout>
  );
}
